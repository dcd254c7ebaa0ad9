/usr/lib/gridengine/qrsh -inherit vm sh -c echo out; echo err >&2
