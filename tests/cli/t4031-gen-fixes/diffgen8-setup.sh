# the initial tree of diffgen8.yml: a stub crontab command (Ansible's cron
# module wants one even for a cron file), cron files holding a job, a job
# and a variable, and a directory where a cron file is named
rm -rf $1 && mkdir -p $1/bin $1/cron.d/dir && cd $1 || exit 1
printf '#!/bin/sh\nexit 0\n' >bin/crontab && chmod 755 bin/crontab
printf '#Ansible: tick\n* * * * * root /bin/true\n' >cron.d/one && chmod 644 cron.d/one
printf '#Ansible: tick\n* * * * * root /bin/true\n' >cron.d/two && chmod 644 cron.d/two
printf 'MAILTO="root"\n#Ansible: tick\n* * * * * root /bin/true\n' >cron.d/env && chmod 644 cron.d/env
printf '=a=b\nX=1\n#c=2\n==\na b=3\nab=\n' >cron.d/envs && chmod 644 cron.d/envs
