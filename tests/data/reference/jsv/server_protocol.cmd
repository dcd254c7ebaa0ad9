the lines srv.sh received for the three submissions above
