$ qconf -srqs cm_lead,cm_inner,cm_trail,cm_blank,cm_close,cm_close2,cm_open,cm_open2
