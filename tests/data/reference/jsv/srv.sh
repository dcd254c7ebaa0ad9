#!/bin/sh
# server side: rejects jobs named rejectme, renames jobs named fixme, logs what it gets
while read -r line; do
  echo ">>> $line" >> /tmp/jsvcap/srv.log
  case "$line" in
    START*) echo STARTED ;;
    "PARAM N "*) name=${line#PARAM N } ;;
    BEGIN*)
      case "$name" in
        rejectme) echo "RESULT STATE REJECT not here" ;;
        fixme) echo "PARAM N fixed"; echo "LOG INFO renamed"; echo "RESULT STATE CORRECT renamed" ;;
        *) echo "RESULT STATE ACCEPT" ;;
      esac ;;
    QUIT*) exit 0 ;;
  esac
done
