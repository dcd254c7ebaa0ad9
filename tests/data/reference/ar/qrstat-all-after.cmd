sgeuser$ qrstat
