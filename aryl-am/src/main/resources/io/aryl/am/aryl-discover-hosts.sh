#!/bin/sh
# Prints the job's current workers as host:slots lines (the format of Horovod elastic's --host-discovery-script).
# Asks the ApplicationMaster first (its /hosts follows membership changes), else prints this generation's hosts.
if [ -n "$ARYL_AM_URL" ] && command -v curl >/dev/null 2>&1 \
    && curl -fsS --max-time 5 "${ARYL_AM_URL%/}/hosts" 2>/dev/null; then
  exit 0
fi
echo "$ARYL_HOSTS" | tr ',' '\n'
