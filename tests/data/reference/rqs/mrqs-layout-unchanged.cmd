$ EDITOR=/tmp/ed-keep.sh qconf -mrqs layout
