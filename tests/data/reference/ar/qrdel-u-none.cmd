sgeuser$ qrdel -u sgeuser2
