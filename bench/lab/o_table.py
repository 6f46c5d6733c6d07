import streamlit as st, pandas as pd, numpy as np
st.title("Trivial")
@st.fragment
def f():
    v = st.slider("value", 0, 100, 50)
    st.table(pd.DataFrame(np.random.default_rng(v).random((6, 5))).round(3))
    st.write(v)
f()
