#!/bin/bash
# The process a container of a `--launcher torchrun` job runs under its supervisor (aryl-supervise.sh, the container's
# main process): torchrun's elastic agent. Its arguments are the agent's command line as the ApplicationMaster built it
# (the interpreter, -m torch.distributed.run and its options); the job's command after `--` (the training script and
# its arguments) follows them, read from aryl-worker.sh (staged by the client: a shebang line, then the command) the way
# the shell reads it there, so that quoting and $VARIABLES mean what they mean under the env launcher.
#
# ARYL_GENERATION is the ApplicationMaster's number for this agent's rendezvous (the incarnation), which the supervisor
# names in its exit report. It is no generation of the workers (torchrun forms those), so the agent and the workers do
# not get it: a script that reads it would take it for one.

if [ $# -eq 0 ] || [ ! -r aryl-worker.sh ]; then
  echo "usage: aryl-torchrun.sh AGENT_COMMAND... (with the job's command in aryl-worker.sh)" >&2
  exit 2
fi
agent=("$@")
unset ARYL_GENERATION
command=$(tail -n +2 aryl-worker.sh)
eval "exec \"\${agent[@]}\" $command"
