/usr/lib/gridengine/qrsh -inherit nosuchhost29 hostname
