/* cmd-list.h: the names of all subcommands, for declarations (X-macro).
 * The table with synopses lives in src/imc.c. */
X(validate) X(plan) X(radl) X(create) X(wait) X(list) X(getstate)
X(getcontmsg) X(getvmcontmsg) X(getinfo) X(getvminfo) X(getradl)
X(addresource) X(removeresource) X(alter) X(reconfigure) X(start) X(stop)
X(startvm) X(stopvm) X(rebootvm) X(ssh) X(getoutputs) X(export) X(import)
X(destroy) X(play) X(help) X(version)
