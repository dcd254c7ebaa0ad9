sgeuser$ qrdel -help
