sgeuser$ qrdel
