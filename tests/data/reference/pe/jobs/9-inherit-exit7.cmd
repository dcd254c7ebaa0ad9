/usr/lib/gridengine/qrsh -inherit vm sh -c exit 7
