qhost -ncb
