qrsh -jsv $DIR/reject.sh /bin/true
