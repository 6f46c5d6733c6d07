import numpy as np, io
from PIL import Image
import streamlit as st
st.title("Trivial")
@st.cache_data
def img(v):
    a = (np.random.default_rng(v).random((300, 400, 3))*255).astype("uint8")
    b = io.BytesIO(); Image.fromarray(a).save(b, "JPEG", quality=85); return b.getvalue()
@st.fragment
def f():
    v = st.slider("value", 0, 100, 50)
    st.image(img(v))
    st.write(v)
f()
