$ qconf -srqs to01,to05,to07,to08,to09,to10,to11,to13,to14,to19,to20,to21,to22,to23
