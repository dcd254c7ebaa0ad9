/usr/lib/gridengine/qrsh -inherit vm hostname
