qresub 99999
