sgeuser$ qrdel 99
