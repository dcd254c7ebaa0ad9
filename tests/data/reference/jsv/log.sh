#!/bin/sh
# logs the protocol, accepts
while read -r line; do
  echo ">>> $line" >> /tmp/jsvcap/proto.log
  case "$line" in
    START*) echo STARTED ;;
    BEGIN*) echo "RESULT STATE ACCEPT ok" ;;
    QUIT*) exit 0 ;;
  esac
done
