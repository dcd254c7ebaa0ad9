sgeuser$ qrstat -explain
