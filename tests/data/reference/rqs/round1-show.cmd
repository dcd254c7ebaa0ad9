$ qconf -srqs rule_names,filter_order,prj_pe_wild,multi_to
