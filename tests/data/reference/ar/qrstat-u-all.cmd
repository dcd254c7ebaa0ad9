sgeuser$ qrstat -u *
