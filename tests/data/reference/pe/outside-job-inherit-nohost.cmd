/usr/lib/gridengine/qrsh -inherit
