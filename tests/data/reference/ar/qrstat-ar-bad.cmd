sgeuser$ qrstat -ar abc
