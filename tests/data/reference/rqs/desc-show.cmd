$ qconf -srqs desc_q,desc_uq,desc_uq1,desc_empty,desc_none,desc_inner,desc_half,desc_blank
