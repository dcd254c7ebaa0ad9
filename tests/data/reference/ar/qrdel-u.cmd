sgeuser2$ qrdel -u sgeuser2
