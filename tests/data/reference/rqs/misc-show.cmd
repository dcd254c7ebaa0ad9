$ qconf -srqs cont,two_a,two_b,crlf,tabs,compact,oneline,comments
