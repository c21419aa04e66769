//go:build !linux

package sweep

// sockRead reads from rc's socket into p (rc.rxNs stays 0: no kernel stamps here).
func (rc *rawConn) sockRead(p []byte) (int, error) { return rc.conn.Read(p) }

// attachRx does nothing off Linux.
func (rc *rawConn) attachRx() {}
