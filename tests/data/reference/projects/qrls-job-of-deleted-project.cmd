$ sge_as_user qrls 93
