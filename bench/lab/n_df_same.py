import streamlit as st, pandas as pd, numpy as np
st.title("Trivial")
@st.fragment
def f():
    v = st.slider("value", 0, 100, 50)
    st.dataframe(pd.DataFrame(np.random.default_rng(1).random((6, 5))))
    st.write(v)
f()
