$ qconf -srqs ref_prj,ref_pe,ref_q,ref_acl,ref_host,ref_load
