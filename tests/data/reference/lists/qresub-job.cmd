qresub 237
