#!/bin/sh
echo "args: $*"
echo err >&2
