$ (as root) qmod -usj *
