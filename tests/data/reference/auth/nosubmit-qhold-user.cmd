$ qhold 303
