/* cmd-list.h: every subcommand, in the order `imc --help` lists them
 * (X-macro). Each X(name) is the entry cmd_name_entry of cmd-name.c. */
X(validate) X(radl) X(plan) X(create) X(wait) X(list) X(getstate)
X(getcontmsg) X(getvmcontmsg) X(logs) X(getinfo) X(getvminfo) X(getradl)
X(addresource) X(removeresource) X(alter) X(reconfigure) X(start) X(stop)
X(startvm) X(stopvm) X(rebootvm) X(ssh) X(play) X(getoutputs) X(export)
X(import) X(destroy) X(serve) X(help) X(version)
X(deploy_worker)
