$ (as cloudsdk) qmod -sj *
