$ qconf -srqs to31,to32,to33,to34,to35,to36,to37,to38
