qping -info vm 1 qmaster 1
