$ qconf -Mcal Mcal-two-args.input extra
