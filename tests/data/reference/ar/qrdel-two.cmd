sgeuser$ qrdel 7 99
