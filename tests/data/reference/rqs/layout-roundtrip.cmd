$ qconf -srqs layout > /tmp/rqsw/layout.rt && qconf -Mrqs /tmp/rqsw/layout.rt layout && qconf -srqs layout
