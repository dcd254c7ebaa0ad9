sgeuser2$ qrdel -f 1
