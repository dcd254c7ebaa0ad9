/usr/lib/gridengine/qrsh -inherit vm  echo "a;b" $0 $HOME
