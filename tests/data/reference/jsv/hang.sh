#!/bin/sh
kind=hang
while read -r line; do
  case "$line" in
    START*) [ $kind = die ] && exit 3; echo STARTED ;;
    BEGIN*)
      case $kind in
        reject) echo "RESULT STATE REJECT no binaries here" ;;
        reject_nomsg) echo "RESULT STATE REJECT" ;;
        reject_wait) echo "RESULT STATE REJECT_WAIT come back later" ;;
        correct) echo "PARAM N renamed"; echo "PARAM l_hard h_rt=50"; echo "ENV ADD JSVVAR hello"; echo "LOG INFO corrected it"; echo "RESULT STATE CORRECT fixed" ;;
        hang) sleep 100 ;;
        badparam) echo "PARAM USER root"; echo "RESULT STATE CORRECT x" ;;
      esac ;;
    QUIT*) exit 0 ;;
  esac
done
