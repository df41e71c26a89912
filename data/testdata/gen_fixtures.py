# Regenerates the scipy/numpy fixtures of this directory (Debian's
# python3-numpy 1.24 and python3-scipy 1.10 were used). They check the
# readers against files written by other implementations than ours.
import numpy as np, scipy.io as sio, scipy.sparse as sp

fea = np.arange(12, dtype=np.float64).reshape(4, 3) * 1.5 - 3
gnd = np.array([[3], [1], [3], [2]], dtype=np.int32)
d = dict(fea=fea, gnd=gnd, f32=fea.astype(np.float32),
         u8=np.arange(12, dtype=np.uint8).reshape(4, 3),
         i16=(-np.arange(12, dtype=np.int16)).reshape(4, 3),
         u64=np.arange(12, dtype=np.uint64).reshape(4, 3),
         s={'a': 1, 'b': 'text'}, c=np.array([[1, 'x']], dtype=object),
         txt='hello', sparse=sp.csc_matrix(np.eye(3)), cplx=np.array([1 + 2j, 3]))
sio.savemat('scipy_v5.mat', d, do_compression=False)
sio.savemat('scipy_v5z.mat', d, do_compression=True)
sio.savemat('scipy_v5_col.mat', {'X': fea.T.copy(), 'y': gnd.ravel()}, oned_as='row', do_compression=True)
np.save('numpy_c.npy', fea)
np.save('numpy_fortran.npy', np.asfortranarray(fea))
np.save('numpy_bigendian.npy', fea.astype('>f8'))
np.save('numpy_labels.npy', gnd.ravel().astype(np.int64))
# .npz archives (np.savez stores, np.savez_compressed deflates)
labels = np.array(['cat', 'dög', 'cat', 'émeu'])
np.savez('numpy_savez.npz', X=fea, y=gnd.ravel())
np.savez_compressed('numpy_savez_compressed.npz', data=np.asfortranarray(fea.astype(np.float32)), labels=labels)
np.savez('numpy_positional.npz', fea, gnd)
np.savez('numpy_bytes_labels.npz', X=fea, target=np.array([b'cat', b'dog', b'cat', b'emu']), extra=np.zeros(2))
np.savez('numpy_object_labels.npz', X=fea, y=np.array(['a', 1, None, 'b'], dtype=object))
# What WriteMAT must write (after the 128-byte header, whose text holds a date):
# fea and gnd as doubles, gnd a column, uncompressed.
sio.savemat('scipy_v5_written.mat', {'fea': fea, 'gnd': gnd.astype(np.float64)}, do_compression=False)
