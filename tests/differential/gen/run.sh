#!/bin/sh
# tests/differential/gen/run.sh [-n CASES] [-s SEED] [-b BATCH] [-j JOBS]
#     [-o WORKDIR] [--imc IMC] [--cache DIR] [--strict] [--show N] [MODULE...]
# The generated differential run: gen.py writes CASES random cases (default
# 1000, seed 1) over the native modules named (default all), and each batch
# is run by ansible-playbook -c local and by imc play --connection local
# --no-fallback; prints per module the cases, identical and divergent, then
# the first divergences. run.py says how; this wrapper only picks the
# Python that has Ansible's own modules (the Debian one).
exec "${PYTHON3:-/usr/bin/python3}" "$(dirname "$0")/run.py" "$@"
