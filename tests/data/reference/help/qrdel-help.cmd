qrdel -help
