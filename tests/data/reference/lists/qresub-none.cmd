qresub
