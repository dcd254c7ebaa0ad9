sgeuser$ qrdel -u
