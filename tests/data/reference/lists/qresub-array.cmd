qresub 241
