qping -info vm 6444 qmaster 1
