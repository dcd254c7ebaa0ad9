/usr/lib/gridengine/qrsh -inherit -verbose vm hostname
