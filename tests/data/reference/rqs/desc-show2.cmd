$ qconf -srqs desc_qsp,desc_tab,desc_none_l
