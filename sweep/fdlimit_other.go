//go:build !unix

package sweep

import "errors"

func getNoFile() (soft, hard uint64, err error) { return 0, 0, errors.New("unsupported") }

func setNoFile(soft, hard uint64) error { return errors.New("unsupported") }
